from payments.staff import config


class ThreeDSecureConfig(config.StaffAppConfig):
    """3-D Secure: what the sandbox issuer does (scenarios) and what a real 3DS server is told (configurations)."""

    name = "threedsecure"
    desk_position = 85
    verbose_name = "3-D Secure"
