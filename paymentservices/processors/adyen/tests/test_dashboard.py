"""Adyen's Customer Area page of a payment, for the desk's link: the live area when the service has a live prefix."""

from paymentservices.processors.adyen.processor import AdyenProcessor


def test_a_test_payment_links_to_the_test_customer_area():
    url = AdyenProcessor().dashboard_url(reference="NC6HT9CRT65ZGN82", fields={"merchant_account": "Shop_ECOM"})

    assert url == (
        "https://ca-test.adyen.com/ca/ca/accounts/showTx.shtml"
        "?pspReference=NC6HT9CRT65ZGN82&txType=Payment&accountKey=MerchantAccount.Shop_ECOM"
    )


def test_a_live_payment_links_to_the_live_customer_area():
    fields = {"merchant_account": "Shop_ECOM", "live_url_prefix": "1797a841fbb37ca7-AdyenDemo"}

    url = AdyenProcessor().dashboard_url(reference="NC6HT9CRT65ZGN82", fields=fields)

    assert url is not None
    assert url.startswith("https://ca-live.adyen.com/ca/ca/accounts/showTx.shtml?pspReference=NC6HT9CRT65ZGN82")
