"""Built-in report sections, one module each (imported by the registry)."""
