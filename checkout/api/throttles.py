"""The Secure Fields limit: one budget per checkout session id, for PUT and POST together (docs/rate-limits.md)."""

from payments.ratelimits.throttles import UrlParameterThrottle


class CheckoutSessionThrottle(UrlParameterThrottle):
    """Per checkout session id (the URL's `session_id`, the endpoint's credential), whatever token is sent or none."""

    rate_setting = "RATELIMIT_CHECKOUT_FIELDS"
    scope = "checkout-fields"
    url_kwarg = "session_id"
    subject_kind = "checkout_session"
    description = "checkout session"
