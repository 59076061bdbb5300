"""Test support: local servers speaking the remote providers' wire protocols (see `servers`)."""

from poemetric.testing.servers import *  # noqa: F403
from poemetric.testing.servers import __all__ as __all__
