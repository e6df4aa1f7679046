"""The desk speaks the merchant's words: no label on any admin page is a field's raw name.

Generic on purpose: it walks every model registered on the desk (pages added later included), its list's columns
and filters, its change page's fields and inlines, and renders each list and, where a test factory can make a row,
each change page, reading what a person sees (headings, labels, column heads, filters, breadcrumbs).
"""

from __future__ import annotations

import importlib
import itertools
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import label_for_field
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Model
from django.test import RequestFactory
from django.urls import reverse

pytestmark = pytest.mark.django_db

# Abbreviations a person writes in capitals: otherwise, each is a field's name showing through ("definition id",
# "Cvv response code").
ABBREVIATIONS = {"id", "ids", "url", "urls", "cvv", "avs", "iso", "bin", "api", "json", "pem", "http", "psp", "uuid"}
# What the desk once showed, word for word: a field's name, an English plural made by code, a host:pid, a slug.
KNOWN_BAD = ("Report fetchs", "Leased by", "(mock-card)", "Task Results", "Tasks Database Backend")


def raw_words(label: str, *, declared: bool = True) -> str | None:
    """Why `label` reads as a field's name rather than a word of the desk, or None when it reads as words.

    A `declared` label (a verbose name, a column's description) is also held to sentence case; a rendered one may
    hold a person's name ("Ada Obi")."""
    text = label.strip().rstrip(":").strip()
    if not text:
        return None
    if re.search(r"\b[a-z]{2,}(?:_[a-z]{2,})+\b", text):  # a processor's reference (`pi_3Nx`, `dp_0`) is no name
        return "snake_case"
    words = text.split()
    lowered = [word for word in words if word.lower().strip("(),") in ABBREVIATIONS and not word.isupper()]
    if lowered:
        return f"{lowered[0]!r} not in capitals"
    if words[0] == "By" and len(words) > 1:  # a filter's title: "By is deleted"
        words = words[1:]
    if words[0].lower() == "is" and len(words) > 1:
        return "a boolean's attribute name (is ...)"
    capitalised = [word for word in words if word[:1].isupper() and not word.isupper()]
    if declared and len(capitalised) > 1 and len(capitalised) == len([word for word in words if not word.isupper()]):
        return "Title Case, as a class name reads"
    for bad in KNOWN_BAD:
        if bad in text:
            return f"{bad!r}"
    return None


@pytest.mark.parametrize(
    ("label", "raw"),
    [
        ("definition id", True),
        ("cascade_retryable_declines", True),
        ("is deleted", True),
        ("Merchant account id", True),
        ("Cvv response code", True),
        ("Iso response code", True),
        ("Task Results", True),
        ("Report fetchs", True),
        ("Leased by", True),
        ("Sandbox (mock-card)", True),
        ("Merchant account ID", False),
        ("CVV response code", False),
        ("Processor", False),
        ("3-D Secure configurations", False),
        ("API keys", False),
        ("Reconciliation ID", False),
    ],
)
def test_the_rule_tells_a_field_name_from_words(label, raw):
    """The check itself: each bad label of the desk's past fails it, and words pass."""
    assert (raw_words(label) is not None) is raw


def registered() -> list[tuple[type[Model], admin.ModelAdmin[Any]]]:
    return sorted(admin.site._registry.items(), key=lambda item: item[0]._meta.label)


def _model_field_labels(model: type[Model], model_admin: Any, names: list[Any], form: Any = None) -> Iterator[str]:
    for name in names:
        yield str(label_for_field(name, model, model_admin, form=form))


def admin_labels(model: type[Model], model_admin: Any) -> Iterator[tuple[str, str]]:
    """(where, label) for every label the model's pages show, read from the admin's own declarations."""
    request = RequestFactory().get("/")
    request.user = User(is_superuser=True, is_staff=True, is_active=True)
    opts = model._meta
    yield "the model's name", str(opts.verbose_name)
    yield "the list's name", str(opts.verbose_name_plural)
    yield "the app's name", str(opts.app_config.verbose_name)
    for label in _model_field_labels(model, model_admin, list(model_admin.list_display)):
        yield "a column", label
    for entry in model_admin.list_filter:
        if isinstance(entry, str):
            yield "a filter", str(label_for_field(entry.split("__")[0], model, model_admin))
        elif isinstance(entry, tuple):
            yield "a filter", str(label_for_field(entry[0], model, model_admin))
        else:
            yield "a filter", str(entry.title)
    form = model_admin.get_form(request)()
    for title, options in model_admin.get_fieldsets(request):
        if title:
            yield "a section", str(title)
        names = [n for group in options.get("fields", ()) for n in (group if isinstance(group, tuple) else [group])]
        for label in _model_field_labels(model, model_admin, names, form):
            yield "a field", label
    for inline in model_admin.inlines:
        inline_model = inline.model
        yield "an inline", str(inline_model._meta.verbose_name_plural)
        for label in _model_field_labels(inline_model, inline(model, admin.site), list(inline.fields or ())):
            yield "an inline's column", label


@pytest.mark.parametrize(("model", "model_admin"), registered(), ids=[model._meta.label for model, _ in registered()])
def test_no_declared_label_is_a_field_name(model, model_admin):
    raw = [(where, label, why) for where, label in admin_labels(model, model_admin) if (why := raw_words(label))]
    assert raw == [], f"{model._meta.label}: {raw}"


# --- the pages as rendered ---------------------------------------------------------------------------------------


class _Shown(HTMLParser):
    """The texts a person reads as labels: headings, column heads (not a row's own cell), form labels, captions,
    the filters' choices and the breadcrumbs."""

    LABELS = {"h1", "h2", "h3", "th", "label", "caption", "summary"}
    VOID = {"br", "img", "input", "meta", "link", "hr"}

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self.choices: list[str] = []
        self.breadcrumbs: list[str] = []
        self._stack: list[tuple[str, str]] = []  # (tag, class)
        self._open: list[tuple[int, list[str], list[str]]] = []  # (depth, parts, where the text goes)

    def _inside(self, tag: str, css_class: str = "") -> bool:
        return (
            any(t == tag and css_class in c.split() for t, c in self._stack) if css_class else tag in dict(self._stack)
        )

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.VOID:
            return
        css = dict(attrs).get("class") or ""
        filters = dict(attrs).get("id") == "changelist-filter"
        self._stack.append((tag, "changelist-filter" if filters else css))
        if tag == "div" and "breadcrumbs" in css.split():
            self.breadcrumbs = [""]
        if tag in self.LABELS and not (tag == "th" and self._inside("tbody")):
            self._open.append((len(self._stack), [], self.texts))
        elif tag == "a" and any("changelist-filter" in c for _, c in self._stack) and self._inside("li"):
            self._open.append((len(self._stack), [], self.choices))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID or not self._stack:
            return
        if self._open and self._open[-1][0] == len(self._stack):
            _, parts, into = self._open.pop()
            if text := " ".join("".join(parts).split()):
                into.append(text)
        self._stack.pop()

    def handle_data(self, data: str) -> None:
        for _, parts, _ in self._open:
            parts.append(data)
        if self._inside("div", "breadcrumbs"):
            pieces = data.split("\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}")  # the crumbs' &rsaquo;
            self.breadcrumbs[-1] += pieces[0]
            self.breadcrumbs.extend(pieces[1:])


def shown(html: str) -> _Shown:
    parser = _Shown()
    parser.feed(html)
    return parser


def page_problems(html: str, names: set[str]) -> list[str]:
    """What on a rendered page reads as a field's name, a slug or a word the desk must not show; `names` are the
    identifiers people chose (merchant account ids), shown as they are."""
    page = shown(html)
    problems = [f"{text!r}: {why}" for text in page.texts if (why := raw_words(text, declared=False))]
    # A filter offers values in words: a slug ("payment-method", "locked-out") is the stored value showing through.
    problems += [
        f"filter choice {text!r}: a slug"
        for text in page.choices
        if text not in names and re.fullmatch(r"[a-z]+(?:[-_][a-z]+)+", text)
    ]
    crumbs = [" ".join(crumb.split()) for crumb in page.breadcrumbs]
    problems += [f"breadcrumb {crumbs}: says {a!r} twice" for a, b in itertools.pairwise(crumbs) if a == b]
    # A select's options are values (Django's own permission names on the user and group pages), not the desk's labels.
    text = re.sub(r"<[^>]+>", " ", re.sub(r"<select.*?</select>", "", html, flags=re.S))
    problems += [f"{bad!r} on the page" for bad in KNOWN_BAD if bad in text]
    return problems


def _chosen_names() -> set[str]:
    from payments.accounts.models import MerchantAccount

    return set(MerchantAccount.objects.values_list("id", flat=True))


def _factories() -> dict[type[Model], Any]:
    """Every test factory of the installed apps, by the model it makes."""
    import factory

    found: dict[type[Model], Any] = {}
    for config in apps.get_app_configs():
        try:
            module = importlib.import_module(f"{config.name}.tests.factories")
        except ModuleNotFoundError:
            continue
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, factory.base.BaseFactory) and value._meta.model:
                found.setdefault(value._meta.model, value)
    return found


@pytest.fixture
def one_of_each(merchant_account, api_key) -> dict[type[Model], Model]:
    """A row of every registered model a factory (or the rows those make) provides, and what the audit log's filters
    offer: an API key's change and a locked-out sign-in."""
    from payments.audit.services import Actor, audit_record

    for actor, action, resource_type in (
        (Actor(api_key.id, api_key.kid, False), "updated", "payment-method"),
        (Actor(None, "127.0.0.1", False), "locked-out", "staff-sign-in"),
    ):
        audit_record(
            actor=actor,
            action=action,
            resource_type=resource_type,
            resource_id="1",
            resource_name=resource_type,
            merchant_account_id=None,
        )
    rows: dict[type[Model], Model] = {}
    for model, make in _factories().items():
        if model in admin.site._registry:
            try:
                with transaction.atomic():
                    rows[model] = make()
            except IntegrityError:  # a factory that needs its caller's arguments: a row made by another serves
                continue
    for model in admin.site._registry:
        if model not in rows and (row := model._default_manager.first()) is not None:
            rows[model] = row
    return rows


def test_the_start_page_and_every_list_read_as_words(admin_client, one_of_each):
    problems = {"the start page": page_problems(admin_client.get(reverse("admin:index")).content.decode(), set())}
    for model in admin.site._registry:
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        response = admin_client.get(url)
        assert response.status_code == 200, url
        problems[url] = page_problems(response.content.decode(), _chosen_names())
    found = {where: found for where, found in problems.items() if found}
    assert found == {}, "\n".join(f"{where}: {items}" for where, items in found.items())


def test_every_change_page_reads_as_words(admin_client, one_of_each):
    problems = {}
    for model, row in one_of_each.items():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[row.pk])
        response = admin_client.get(url, follow=True)
        assert response.status_code == 200, url
        problems[url] = page_problems(response.content.decode(), _chosen_names())
    found = {where: found for where, found in problems.items() if found}
    assert found == {}, "\n".join(f"{where}: {items}" for where, items in found.items())


# --- choices and permissions ---------------------------------------------------------------------------------------

# Names people write in capitals: a wallet's or a card scheme's brand.
PROPER_NAMES = {"Apple Pay", "Google Pay", "Carte Bancaire", "Diners Club", "Eftpos Australia"}


@pytest.mark.parametrize(("model", "model_admin"), registered(), ids=[model._meta.label for model, _ in registered()])
def test_every_choice_reads_in_sentence_case(model, model_admin):
    """A choice's label is what a filter, a column and a form offer: "Capture succeeded", never the enum's name made
    Title Case ("Capture Succeeded", "Card On File")."""
    raw = [
        (field.name, str(label), why)
        for field in model._meta.concrete_fields
        for _, label in field.flatchoices
        if str(label) not in PROPER_NAMES and (why := raw_words(str(label)))
    ]
    assert raw == [], f"{model._meta.label}: {raw}"


def _offered(html: str, name: str) -> list[str]:
    select = re.search(rf'<select[^>]*name="{name}".*?</select>', html, flags=re.S)
    assert select is not None, name
    return [" ".join(text.split()) for text in re.findall(r"<option[^>]*>([^<]*)</option>", select.group(0))]


@pytest.mark.parametrize(
    ("page", "field"),
    [("auth/group/{group}/change/", "permissions"), ("auth/user/{user}/change/", "user_permissions")],
    ids=["group", "user"],
)
def test_the_roles_pages_offer_permissions_in_the_desks_words(admin_client, admin_user, page, field):
    from django.contrib.auth.models import Group, Permission

    # A permission keeps the name of the day it was made: the settlement report downloads were "report fetch" then.
    Permission.objects.filter(codename="add_reportfetch").update(name="Can add report fetch")
    group = Group.objects.get(name="Support")
    html = admin_client.get(f"/admin/{page.format(group=group.pk, user=admin_user.pk)}").content.decode()
    offered = _offered(html, field)
    assert "Settlement report downloads: add" in offered
    assert "Transactions: capture, void and refund transactions" in offered
    assert "Settlement ledger entries: view" in offered
    assert [label for label in offered if raw_words(label) or label.startswith("Can ") or "|" in label] == []
    # Only what the desk shows: no sessions, content types or the task backend's own table.
    assert not [label for label in offered if label.split(":")[0] in {"Sessions", "Content types", "Task Results"}]


def test_a_group_saved_on_the_desk_keeps_the_permissions_it_does_not_offer(admin_client):
    from django.contrib.auth.models import Group, Permission

    group = Group.objects.create(name="Night shift")
    kept = Permission.objects.get(codename="view_session")
    chosen = Permission.objects.get(codename="view_transaction")
    group.permissions.add(kept)
    response = admin_client.post(
        f"/admin/auth/group/{group.pk}/change/", {"name": "Night shift", "permissions": [chosen.pk]}
    )
    assert response.status_code == 302
    assert set(group.permissions.all()) == {kept, chosen}
