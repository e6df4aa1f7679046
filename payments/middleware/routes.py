"""A request's route template (`/buyers/{buyer_id}`): what logs name instead of the raw path.

A raw path can carry a credential (the Secure Fields URL holds the checkout session id) or any identifier
a client typed; the template names the endpoint and nothing else. Light on imports: the logging filters
load this while Django sets logging up, before the apps are ready.
"""

import re
from functools import lru_cache

from django.http import HttpRequest

_NAMED_GROUP = re.compile(r"\(\?P<(\w+)>")
_CONVERTER = re.compile(r"<(?:\w+:)?(\w+)>")


# What logs name instead of a path that matched no route: such a path is whatever the client typed.
UNMATCHED = "(unmatched path)"


def loggable_route(request: HttpRequest) -> str:
    """The route template to log for `request`; never its raw path."""
    return request_route(request) or UNMATCHED


def request_route(request: HttpRequest) -> str | None:
    """The template of the URL pattern `request` matched; None before resolution or when nothing matched."""
    match = getattr(request, "resolver_match", None)
    return route_template(str(match.route)) if match is not None else None


@lru_cache(maxsize=512)
def route_template(route: str) -> str:
    """`^buyers/(?P<buyer_id>[^/.]+)$` (a router's regex) or `buyers/<uuid:buyer_id>` → `/buyers/{buyer_id}`."""
    out, index = [], 0
    while match := _NAMED_GROUP.search(route, index):
        out.append(route[index : match.start()])
        out.append("{" + match.group(1) + "}")
        index = _group_end(route, match.end())
    out.append(route[index:])
    template = _CONVERTER.sub(r"{\1}", "".join(out)).replace("^", "").replace("$", "")
    return "/" + template.lstrip("/")


def _group_end(pattern: str, start: int) -> int:
    """Index just past the parenthesis closing the group whose body starts at `start`."""
    depth, index = 1, start
    while index < len(pattern) and depth:
        char = pattern[index]
        if char == "\\":
            index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        index += 1
    return index
