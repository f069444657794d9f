# One image for every role of the scaled stack: web (gunicorn), Celery worker, Celery beat.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY . .
# The solver's compiled build (tools/compile_solver.py); the C compiler is needed for this step only.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && python tools/compile_solver.py --strict \
    && apt-get purge -y --auto-remove gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
# collectstatic needs settings that import; the real secret comes from the environment at run time.
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput

RUN useradd --create-home --uid 10001 klondike && chown -R klondike /app/var
USER klondike

EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--config", "config/gunicorn.py"]
