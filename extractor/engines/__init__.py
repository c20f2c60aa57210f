"""Stage 7: model backends that implement `pipeline.engine.Engine`; `local` runs a transformers model in this
process. vLLM's engine lives with its integration (`integrations.vllm.engine`); a third backend goes here."""
