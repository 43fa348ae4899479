"""dpviz: privacy-utility trade-offs of differential privacy in NLP, as live figures."""

__version__ = "0.1.0"


def env_flag(name: str) -> bool | None:
    """An on/off environment variable: True for 1/true/yes/on, False for 0/false/no/off, else None."""
    import os

    value = os.environ.get(name, "").strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    return None


def hosted_mode() -> bool:
    """Hosted-demo mode (``DPVIZ_HOSTED=1``): compute-heavy parameters are capped and file paths refused."""
    return env_flag("DPVIZ_HOSTED") is True
