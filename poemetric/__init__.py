"""POEMetric: measure how well large language models write fixed-form poetry."""

__version__ = "0.1.0"
