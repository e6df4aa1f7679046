"""Digital wallets for support staff: each wallet with its websites and the state of its key pairs (the certificate
signing requests to download, whether Apple's certificate is uploaded, its expiry). Never a private key."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from digitalwallets.models import DigitalWallet, WalletKey


class WalletKeyInline(admin.TabularInline):
    model = WalletKey
    extra = 0
    can_delete = False
    fields = ("purpose", "algorithm", "csr_download", "certificate_uploaded", "certificate_expires_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="certificate signing request")
    def csr_download(self, key: WalletKey) -> str:
        if key.csr is None:
            return "none (Google Pay takes the public key)"
        url = reverse("admin:digitalwallets_digitalwallet_csr", args=[key.wallet_id, key.purpose])
        return format_html('<a href="{}" download>Download for Apple</a>', url)

    @admin.display(description="certificate uploaded", boolean=True)
    def certificate_uploaded(self, key: WalletKey) -> bool | None:
        return None if key.csr is None else key.certificate is not None


@admin.register(DigitalWallet)
class DigitalWalletAdmin(admin.ModelAdmin[DigitalWallet]):
    list_display = ("provider", "merchant_name", "merchant_account", "websites", "created_at")
    list_filter = ("provider",)
    search_fields = ("merchant_name", "merchant_account__id")
    fields = (
        "merchant_account",
        "provider",
        "merchant_name",
        "merchant_display_name",
        "merchant_url",
        "merchant_country_code",
        "merchant_category_code",
        "merchant_identifier",
        "websites",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    inlines = [WalletKeyInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    @admin.display(description="websites")
    def websites(self, wallet: DigitalWallet) -> str:
        return format_html_join(", ", "{}", ((name,) for name in wallet.domain_names)) or "none yet"

    def get_urls(self) -> list[URLPattern]:
        csr = path(
            "<path:object_id>/csr/<str:purpose>",
            self.admin_site.admin_view(self.csr_view),
            name="digitalwallets_digitalwallet_csr",
        )
        return [csr, *super().get_urls()]

    def csr_view(self, request: HttpRequest, object_id: str, purpose: str) -> HttpResponse:
        """A key pair's certificate signing request, as the file Apple's portal takes."""
        wallet = self.get_object(request, object_id)
        if wallet is None or not self.has_view_permission(request, wallet):
            return HttpResponse(status=404)
        key = get_object_or_404(WalletKey, wallet=wallet, purpose=purpose, csr__isnull=False)
        response = HttpResponse(key.csr, content_type="application/pkcs10")
        response["Content-Disposition"] = f'attachment; filename="{purpose}.csr"'
        return response
