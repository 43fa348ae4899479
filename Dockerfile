# dpviz hosted demo: slim Python, Debian's Chromium for figure exports, HAProxy in front of one
# server process per core (scripts/serve.sh), a non-root user.
FROM python:3.11-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends chromium fonts-dejavu-core curl haproxy \
 && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 1000 dpviz
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY --chown=dpviz:dpviz . .
# the metric engine's compiled loops are built into the image (numba's cache beside the code), not
# at a visitor's first view; the pages' defaults and their frames are computed by each process's
# hosted warm-up at start (the same code as `dpviz build` without --engine-only), into its cache
RUN python -m dpviz build --engine-only && chown -R dpviz:dpviz /app
USER dpviz
ENV PYTHONUNBUFFERED=1 BROWSER_PATH=/usr/bin/chromium DPVIZ_HOSTED=1 \
    DPVIZ_CACHE_DIR=/home/dpviz/.cache/dpviz PORT=8501 PYTHON=python
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD curl --fail http://localhost:8501/_stcore/health || exit 1
CMD ["bash", "scripts/serve.sh"]
