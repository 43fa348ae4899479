"""dpviz: privacy-utility trade-offs of differential privacy in NLP, as live figures."""

__version__ = "0.1.0"
