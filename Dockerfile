# memvault server image: the API, the Celery worker and beat run from it (docker-compose.yml).
FROM python:3.11-slim
ENV PIP_NO_CACHE_DIR=1 PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 LITELLM_LOCAL_MODEL_COST_MAP=True
WORKDIR /app
COPY pyproject.toml constraints.txt README.md ./
COPY memvault ./memvault
COPY api ./api
COPY workers ./workers
RUN pip install -c constraints.txt ".[ml,llm,server]"
RUN useradd --create-home memvault && mkdir -p /data && chown memvault /data
USER memvault
ENV MEMVAULT_DATA_DIR=/data MEMVAULT_MODE=server
EXPOSE 8080
CMD ["uvicorn", "api.main:build", "--factory", "--host", "0.0.0.0", "--port", "8080"]
