"""Static files storage for production (debug off)."""

from __future__ import annotations

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed static files; JS modules' `import "./x.js"` statements are rewritten
    to the hashed names too, so a page never mixes modules from two releases."""

    support_js_module_import_aggregation = True
