"""Published wallet tokens made by others, kept as test data: they check this server's reading of the formats
against tokens it did not mint itself.

GOOGLE_ECV2_*: the ECv2 vector of Google's own recipient tests (github.com/google-pay/paymentdatacryptography-dotnet,
PaymentMethodTokenRecipientTest.TestECv2, Apache License 2.0, Copyright 2019 Google LLC), with the merchant keys of
Tink's PaymentMethodTokenRecipientTest (github.com/tink-crypto/tink, Apache License 2.0, Copyright 2017 Google Inc.):
a message "plaintext" sealed for "gateway:ariane", verified at 1542319793000 ms.

APPLE_PAY_SANDBOX_TOKEN: a token Apple signed for a sandbox merchant (github.com/spreedly/gala,
test/fixtures/token.json, MIT License, Copyright (c) 2016 Spreedly, Inc.): its signature chains to the real Apple
Root CA - G3 through Apple's real intermediate and leaf, and was signed 2023-03-07 05:33:48 UTC.
"""

GOOGLE_ECV2_ROOT_KEYS = (
    '{"keys":[{"keyValue":"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEvhuz8WZo0DhP7Lg1AQtpQpm2i7Gr6yBa+i6mVOwz3iepodYVDE9Y'
    'GLzUwoL8AEsPUz/26Pg3lofL2u04/edeXg==","protocolVersion":"ECv2","keyExpiration":"2154841200000"}]}'
)
GOOGLE_ECV2_MERCHANT_KEYS_PKCS8 = (
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgCPSuFr4iSIaQprjjchHPyDu2NXFe0vDBoTpPkYaK9dehRANCAATnaFz/vQKuO90p"
    "xsINyVNWojabHfbx9qIJ6uD7Q7ZSxmtyo/Ez3/o2kDT8g0pIdyVIYktCsq65VoQIDWSh2Bdm",
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOUIzccyJ3rTx6SVmXrWdtwUP0NU26nvc8KIYw2GmYZKhRANCAAR5AjmTNAE93hQE"
    "QE+PryLlgr6Q7FXyNXoZRk+1Fikhq61mFhQ9s14MOwGBxd5O6Jwn/sdUrWxkYk3idtNEN1Rz",
)
GOOGLE_ECV2_RECIPIENT_ID = "gateway:ariane"
GOOGLE_ECV2_VERIFIED_AT_MS = 1542319793000
# The intermediate signing key's keyExpiration inside the token.
GOOGLE_ECV2_KEY_EXPIRES_AT_MS = 1542394027316
GOOGLE_ECV2_TOKEN = (
    r'{"protocolVersion":"ECv2","signature":"MEUCIG39tbaQPwJe28U+UMsJmxUBUWSkwlOv9Ibohacer+CoAiEA8Wuq3lLUCwLQ06D2kErxa'
    r'Mg3b/oLDFbd2gcFze1zDqU=","intermediateSigningKey":{"signedKey":"{\"keyExpiration\":\"1542394027316\",\"keyValue\":'
    r"\"MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE/1+3HBVSbdv+j7NaArdgMyoSAM43yRydzqdg1TxodSzA96Dj4Mc1EiKroxxunavVIvdxGnJeF"
    r'ViTzFvzFRxyCw\\u003d\\u003d\"}","signatures":["MEYCIQDcXCoB4fYJF3EolxrE2zB+7THZCfKA7cWxSztKceXTCgIhAN/d5eBgx/1A6qKB'
    r'dH0IS7/aQ7dO4MuEt26OrLCUxZnl"]},"signedMessage":"{\"tag\":\"TjkIKzIOvCrFvjf7/aeeL8/FZJ3tigaNnerag68hIaw\\u003d\",'
    r"\"ephemeralPublicKey\":\"BLJoTmxP2z7M2N6JmaN786aJcT/L/OJfuJKQdIXcceuBBZ00sf5nm2+snxAJxeJ4HYFTdNH4MOJrH58GNDJ9lJw"
    r'\\u003d\",\"encryptedMessage\":\"mleAf23XkKjj\"}"}'
)

APPLE_PAY_SANDBOX_TOKEN = {
    "data": (
        "Yq0ppjc3Icp4d3k8qYo5i4xcx5Oqo2Lae8aT7I2QMZ4wEv7qk37L1KLFESUhiDvxYicIlNLusZ42bxlmWbRnMzLbAXQrY1NusGviKQojDKs1jpoW"
        "7vI/XXLqJWV0wIihc3+BUk6uSUOX1kTshmLnGj6aAHPmGV83J5p+826YXVLjTP562okqKUmhScJm6yJV7aMfQCvGQKGU7UhvbUVQHJILG1auAjMN"
        "uDtAMJzlSJSE2ZVdqOJKMAMKO/aNu0hvU284YlMo1UcfUYCGWANeSLE2lNo2KE8ZEkwHTDAL/F6jzCiW7I8+DUyWNg0A0xF8XQOUfAVOMjYANF3T"
        "w7ys7QPcqtkbY+R2KSGwpQjlt5EhWG45lIDbAD29LfKssc3BQLDcXhAPngYUB4Rv"
    ),
    "signature": (
        "MIAGCSqGSIb3DQEHAqCAMIACAQExDTALBglghkgBZQMEAgEwgAYJKoZIhvcNAQcBAACggDCCA+MwggOIoAMCAQICCEwwQUlRnVQ2MAoGCCqGSM49"
        "BAMCMHoxLjAsBgNVBAMMJUFwcGxlIEFwcGxpY2F0aW9uIEludGVncmF0aW9uIENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24g"
        "QXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzAeFw0xOTA1MTgwMTMyNTdaFw0yNDA1MTYwMTMyNTdaMF8xJTAjBgNV"
        "BAMMHGVjYy1zbXAtYnJva2VyLXNpZ25fVUM0LVBST0QxFDASBgNVBAsMC2lPUyBTeXN0ZW1zMRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQG"
        "EwJVUzBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABMIVd+3r1seyIY9o3XCQoSGNx7C9bywoPYRgldlK9KVBG4NCDtgR80B+gzMfHFTD9+syINa6"
        "1dTv9JKJiT58DxOjggIRMIICDTAMBgNVHRMBAf8EAjAAMB8GA1UdIwQYMBaAFCPyScRPk+TvJ+bE9ihsP6K7/S5LMEUGCCsGAQUFBwEBBDkwNzA1"
        "BggrBgEFBQcwAYYpaHR0cDovL29jc3AuYXBwbGUuY29tL29jc3AwNC1hcHBsZWFpY2EzMDIwggEdBgNVHSAEggEUMIIBEDCCAQwGCSqGSIb3Y2QF"
        "ATCB/jCBwwYIKwYBBQUHAgIwgbYMgbNSZWxpYW5jZSBvbiB0aGlzIGNlcnRpZmljYXRlIGJ5IGFueSBwYXJ0eSBhc3N1bWVzIGFjY2VwdGFuY2Ug"
        "b2YgdGhlIHRoZW4gYXBwbGljYWJsZSBzdGFuZGFyZCB0ZXJtcyBhbmQgY29uZGl0aW9ucyBvZiB1c2UsIGNlcnRpZmljYXRlIHBvbGljeSBhbmQg"
        "Y2VydGlmaWNhdGlvbiBwcmFjdGljZSBzdGF0ZW1lbnRzLjA2BggrBgEFBQcCARYqaHR0cDovL3d3dy5hcHBsZS5jb20vY2VydGlmaWNhdGVhdXRo"
        "b3JpdHkvMDQGA1UdHwQtMCswKaAnoCWGI2h0dHA6Ly9jcmwuYXBwbGUuY29tL2FwcGxlYWljYTMuY3JsMB0GA1UdDgQWBBSUV9tv1XSBhomJdi9+"
        "V4UH55tYJDAOBgNVHQ8BAf8EBAMCB4AwDwYJKoZIhvdjZAYdBAIFADAKBggqhkjOPQQDAgNJADBGAiEAvglXH+ceHnNbVeWvrLTHL+tEXzAYUiLH"
        "JRACth69b1UCIQDRizUKXdbdbrF0YDWxHrLOh8+j5q9svYOAiQ3ILN2qYzCCAu4wggJ1oAMCAQICCEltL786mNqXMAoGCCqGSM49BAMCMGcxGzAZ"
        "BgNVBAMMEkFwcGxlIFJvb3QgQ0EgLSBHMzEmMCQGA1UECwwdQXBwbGUgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxEzARBgNVBAoMCkFwcGxlIElu"
        "Yy4xCzAJBgNVBAYTAlVTMB4XDTE0MDUwNjIzNDYzMFoXDTI5MDUwNjIzNDYzMFowejEuMCwGA1UEAwwlQXBwbGUgQXBwbGljYXRpb24gSW50ZWdy"
        "YXRpb24gQ0EgLSBHMzEmMCQGA1UECwwdQXBwbGUgQ2VydGlmaWNhdGlvbiBBdXRob3JpdHkxEzARBgNVBAoMCkFwcGxlIEluYy4xCzAJBgNVBAYT"
        "AlVTMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE8BcRhBnXZIXVGl4lgQd26ICi7957rk3gjfxLk+EzVtVmWzWuItCXdg0iTnu6CP12F86Iy3a7"
        "ZnC+yOgphP9URaOB9zCB9DBGBggrBgEFBQcBAQQ6MDgwNgYIKwYBBQUHMAGGKmh0dHA6Ly9vY3NwLmFwcGxlLmNvbS9vY3NwMDQtYXBwbGVyb290"
        "Y2FnMzAdBgNVHQ4EFgQUI/JJxE+T5O8n5sT2KGw/orv9LkswDwYDVR0TAQH/BAUwAwEB/zAfBgNVHSMEGDAWgBS7sN6hWDOImqSKmd6+veuv2ssk"
        "qzA3BgNVHR8EMDAuMCygKqAohiZodHRwOi8vY3JsLmFwcGxlLmNvbS9hcHBsZXJvb3RjYWczLmNybDAOBgNVHQ8BAf8EBAMCAQYwEAYKKoZIhvdj"
        "ZAYCDgQCBQAwCgYIKoZIzj0EAwIDZwAwZAIwOs9yg1EWmbGG+zXDVspiv/QX7dkPdU2ijr7xnIFeQreJ+Jj3m1mfmNVBDY+d6cL+AjAyLdVEIbCj"
        "BXdsXfM4O5Bn/Rd8LCFtlk/GcmmCEm9U+Hp9G5nLmwmJIWEGmQ8Jkh0AADGCAYcwggGDAgEBMIGGMHoxLjAsBgNVBAMMJUFwcGxlIEFwcGxpY2F0"
        "aW9uIEludGVncmF0aW9uIENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9yaXR5MRMwEQYDVQQKDApBcHBsZSBJbmMu"
        "MQswCQYDVQQGEwJVUwIITDBBSVGdVDYwCwYJYIZIAWUDBAIBoIGTMBgGCSqGSIb3DQEJAzELBgkqhkiG9w0BBwEwHAYJKoZIhvcNAQkFMQ8XDTIz"
        "MDMwNzA1MzM0OFowKAYJKoZIhvcNAQk0MRswGTALBglghkgBZQMEAgGhCgYIKoZIzj0EAwIwLwYJKoZIhvcNAQkEMSIEIJXg9laO8GZQ3e7qotaB"
        "AiW3XANtPVYAITW0e2zuBgV6MAoGCCqGSM49BAMCBEYwRAIgI9sl0DG8DMwK75+/oCkajtBCDl45I1eNKAe3nXqfmDMCIBfRX9INGxJV/oPuAQRG"
        "9cDycP5ygAsFfWF/pgsLCC76AAAAAAAA"
    ),
    "header": {
        "publicKeyHash": "+9VwJrqieiPF2ZRB0xHFYhgQ6RYza5hfrVLpdB1KtKI=",
        "ephemeralPublicKey": (
            "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEOCAXb0lgOyGSfC2Z/0zeB6ibdUrI6Il7x7gIyigIRBVqwQMLus7vXzhQG331GRA0bdZeIfGk"
            "iYdN+pNtCay9DQ=="
        ),
        "transactionId": "117a9854c5886bdff1815c06ae695c171bc22b1e37994ad9fbe77a3efb868034",
    },
    "version": "EC_v1",
}
APPLE_PAY_SANDBOX_MERCHANT_IDENTIFIER = "merchant.test.spreedly.123merchant"
