from django.urls import path

from digitalwallets.api.views import DigitalWalletSessionViewSet, DigitalWalletViewSet

wallets = DigitalWalletViewSet.as_view({"get": "list", "post": "create"})
wallet = DigitalWalletViewSet.as_view({"get": "retrieve", "put": "update", "delete": "destroy"})
domains = DigitalWalletViewSet.as_view({"post": "domain_add", "delete": "domain_remove"})
keys = DigitalWalletViewSet.as_view({"get": "keys"})
certificates = DigitalWalletViewSet.as_view({"post": "certificate_upload"})
refused = DigitalWalletSessionViewSet.as_view({"post": "refused"})

WALLET = "digital-wallets/<str:digital_wallet_id>"

urlpatterns = [
    path("digital-wallets", wallets, name="digital-wallet-list"),
    path("digital-wallets/apple/session", DigitalWalletSessionViewSet.as_view({"post": "apple"}), name="apple-session"),
    path(
        "digital-wallets/google/session", DigitalWalletSessionViewSet.as_view({"post": "google"}), name="google-session"
    ),
    path("digital-wallets/click-to-pay/session", refused, name="click-to-pay-session"),
    path("digital-wallets/paze/session", refused, name="paze-session"),
    path("digital-wallets/paze/session/create", refused, name="paze-session-create"),
    path("digital-wallets/paze/session/review", refused, name="paze-session-review"),
    path("digital-wallets/paze/session/complete", refused, name="paze-session-complete"),
    path(WALLET, wallet, name="digital-wallet-detail"),
    path(f"{WALLET}/domains", domains, name="digital-wallet-domains"),
    path(f"{WALLET}/keys", keys, name="digital-wallet-keys"),
    path(f"{WALLET}/certificates", certificates, name="digital-wallet-certificates"),
]
