"""How the desk writes dates and times, the one place it is set (settings.FORMAT_MODULE_PATH points here): day, month
and year unambiguous in any country, a 24-hour clock to the second, and the time zone (`28 Nov 2026, 16:40:07 UTC`)."""

DATETIME_FORMAT = "j M Y, H:i:s T"
SHORT_DATETIME_FORMAT = DATETIME_FORMAT
DATE_FORMAT = "j M Y"
SHORT_DATE_FORMAT = DATE_FORMAT
TIME_FORMAT = "H:i:s T"
