"""Addresses and contact details, field for field as the upstream `Address`, `TaxId`, `ShippingDetails` and
`BillingDetails` schemas: buyers, transactions and checkout sessions validate them with these definitions."""

from rest_framework import serializers

from payments.rest.fields import CountryField, StrictCharField, StrictSerializer, optional_text

TAX_ID_KINDS = [
    "ae.trn",
    "au.abn",
    "ar.dni",
    "ar.cuil",
    "ar.cuit",
    "br.cnpj",
    "br.cpf",
    "ca.bn",
    "ca.gst_hst",
    "ca.pst_bc",
    "ca.pst_mb",
    "ca.pst_sk",
    "ca.qst",
    "ch.vat",
    "cl.tin",
    "co.itin",
    "co.nit",
    "co.cc",
    "co.ce",
    "co.de",
    "co.rc",
    "co.ti",
    "co.passport",
    "es.cif",
    "eu.vat",
    "gb.vat",
    "hk.br",
    "id.nik",
    "id.npwp",
    "in.gst",
    "in.pan",
    "jp.cn",
    "jp.rn",
    "kr.brn",
    "li.uid",
    "mx.curp",
    "mx.rfc",
    "my.frp",
    "my.itn",
    "my.nric",
    "my.sst",
    "no.vat",
    "nz.gst",
    "pe.ruc",
    "ph.tin",
    "ru.inn",
    "ru.kpp",
    "sa.vat",
    "sg.gst",
    "sg.uen",
    "th.id",
    "th.vat",
    "tw.vat",
    "us.ein",
    "za.vat",
    "bo.ci",
    "uy.rut",
    "uy.ci",
]


E164 = r"^\+[1-9]\d{1,14}$"


def optional_phone() -> serializers.RegexField:
    """An optional, nullable E.164 phone number (`+` and up to 15 digits)."""
    return serializers.RegexField(
        E164, required=False, allow_null=True, error_messages={"invalid": "Must be an E.164 number."}
    )


class AddressSerializer(StrictSerializer):
    city = optional_text(100)
    country = CountryField(required=False, allow_null=True, min_length=2, max_length=2)
    postal_code = optional_text(50)
    state = optional_text(255)
    state_code = serializers.RegexField(r"^[A-Z]{2}-[A-Z0-9]{1,3}$", required=False, allow_null=True)
    house_number_or_name = optional_text(255)
    line1 = optional_text(255)
    line2 = optional_text(255)
    organization = optional_text(255)


class TaxIdSerializer(StrictSerializer):
    value = StrictCharField(min_length=1, max_length=50)
    kind = serializers.ChoiceField(choices=TAX_ID_KINDS)


class ShippingDetailsSerializer(StrictSerializer):
    """Names, contact details and address: where an order goes. Billing details are these and a tax id, so both
    are validated by this one definition."""

    first_name = optional_text(255)
    last_name = optional_text(255)
    email_address = serializers.EmailField(required=False, allow_null=True, max_length=320)
    phone_number = optional_phone()
    address = AddressSerializer(required=False, allow_null=True)


class BillingDetailsSerializer(ShippingDetailsSerializer):
    """Names, contact details, address and tax id of a buyer or a payment."""

    tax_id = TaxIdSerializer(required=False, allow_null=True)
