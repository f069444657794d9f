"""Static files storage for production (debug off)."""

from __future__ import annotations

import logging

from whitenoise.storage import CompressedManifestStaticFilesStorage

logger = logging.getLogger("config.storage")


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed static files; JS modules' `import "./x.js"` statements are rewritten
    to the hashed names too, so a page never mixes modules from two releases.

    Before `collectstatic` has run (no manifest), or for a file the manifest does not know (a
    release collected before the file was added), a page names the file as it is in its app,
    and WhiteNoise serves it from there (WHITENOISE_USE_FINDERS): every page works without the
    step, only without hashed names and long caching. Without this, every page was a 500
    ("Missing staticfiles manifest entry") until someone ran the step.
    """

    support_js_module_import_aggregation = True

    def stored_name(self, name: str) -> str:
        try:
            return super().stored_name(name)
        except ValueError:  # not collected (or not in this collection): the app's own file
            if not getattr(self, "_uncollected_said", False):
                self._uncollected_said = True
                logger.warning(
                    "static file %s is not collected: served from its app, unhashed "
                    "(run `manage.py collectstatic --noinput` for hashed, long-cached files)",
                    name,
                )
            return name
