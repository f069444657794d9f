from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from accounts import (
            checks,  # noqa: F401  (registers the system checks)
            services,
            tasks,
        )

        # A service has a task sent through a hook (docs/architecture.md, "Layers").
        services.password_reset_queue.connect(tasks.password_reset_queue)
        services.email_verification_queue.connect(tasks.email_verification_queue)
