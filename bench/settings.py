"""The benchmark server's settings: the project's own, plus the reference cases (bench/urls.py).

simplejwt's stock authentication (the peer's) is configured here, and only here, to verify the same
ES512 tokens the SDK mints: the bench's public key, no `token_type` claim, and the user found by the
token's `iss` claim (the SDK sends no user id).
"""

from config.settings import *  # noqa: F403
from config.settings import INSTALLED_APPS, SIMPLE_JWT, env

ROOT_URLCONF = "bench.urls"
# The peer's model (bench/models.py).
INSTALLED_APPS = [*INSTALLED_APPS, "bench"]

SIMPLE_JWT = {
    **SIMPLE_JWT,
    "ALGORITHM": "ES512",
    "VERIFYING_KEY": env.str("BENCH_PEER_VERIFYING_KEY", default=""),
    "TOKEN_TYPE_CLAIM": None,
    "USER_ID_CLAIM": "iss",
    "USER_ID_FIELD": "username",
    "LEEWAY": 30,
}

# django-ratelimit's own switch: the "limits off" server of the gift card balance case sets it to false.
RATELIMIT_ENABLE = env.bool("RATELIMIT_ENABLE", default=True)
