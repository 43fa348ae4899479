"""dpviz: privacy-utility trade-offs of differential privacy in NLP, as live figures."""

__version__ = "0.1.0"


def hosted_mode() -> bool:
    """Hosted-demo mode (``DPVIZ_HOSTED=1``): compute-heavy parameters are capped and file paths refused."""
    import os

    return os.environ.get("DPVIZ_HOSTED", "").strip().lower() in ("1", "true", "yes", "on")
