# One image for every role of the scaled stack: web (gunicorn), Celery worker, Celery beat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# The font of the share cards (games.daily.share_card): every letter of the four languages.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-dejavu-core \
    && rm -rf /var/lib/apt/lists/*
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY . .
# The solver's compiled build (tools/compile_solver.py); the C compiler is needed for this step only.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && python tools/compile_solver.py --strict && rm -rf .mypy_cache \
    && apt-get purge -y --auto-remove gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
# collectstatic needs settings that import: a key of this build step only (a key written here
# would be published, and refused); the real secret comes from the environment at run time.
RUN DJANGO_SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" \
    python manage.py collectstatic --noinput

RUN useradd --create-home --uid 10001 klondike && chown -R klondike /app/var
USER klondike
# The build must load for the service's user too (a folder it cannot read means pure Python).
RUN python -c "from games.engine.solver import native; assert native.is_native()"

EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--config", "config/gunicorn.py"]
