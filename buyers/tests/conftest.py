import pytest


@pytest.fixture
def warm_reader(api_client, merchant_account, settings):
    """A client whose key, account and last-used mark are cached: what every request but the first sees."""
    settings.API_KEY_CACHE_SECONDS = 3600
    client = api_client(scopes=["buyers.read"])
    assert client.get("/buyers").status_code == 200
    return client
