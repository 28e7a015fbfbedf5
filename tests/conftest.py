import pytest

from tether.config import Settings


@pytest.fixture
def settings() -> Settings:
    return Settings()
