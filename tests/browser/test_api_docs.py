"""`/docs/` in headless Chromium: Swagger UI renders every operation of `/openapi.json` from the app's own static
files, with summaries, the error answers, realistic examples and the way to get a token in **Authorize**."""

import json

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _operations(page: Page, origin: str) -> dict[str, str]:
    """The document's operations: Swagger UI's element id of each, and its summary."""
    document = json.loads(page.request.get(f"{origin}/openapi.json").text())
    return {
        f"operations-{operation['tags'][0]}-{operation['operationId']}": operation["summary"]
        for operations in document["paths"].values()
        for operation in operations.values()
    }


def _rendered_operations(page: Page) -> dict[str, str]:
    """Every operation block Swagger UI draws, top to bottom, with the summary it shows. From 100 operations on, it
    draws only those near the viewport (its virtualised list), so the page is walked a screen at a time."""
    seen: dict[str, str] = {}
    page.evaluate("window.scrollTo(0, 0)")
    while True:
        seen.update(_drawn_here(page))
        # Half a screen at a time, so a row drawn late at one position is drawn again at the next.
        at_bottom = page.evaluate(
            "(() => { const before = window.scrollY; window.scrollBy(0, window.innerHeight / 2);"
            " return window.scrollY === before; })()"
        )
        if at_bottom:
            return seen


def _drawn_here(page: Page) -> list[list[str]]:
    """The blocks drawn at the current scroll position once the virtualised list has drawn the rows that scrolled in:
    read after the browser has drawn a frame, until two reads agree (a loaded machine draws them late)."""
    previous: list[list[str]] | None = None
    for _ in range(60):
        page.evaluate("() => new Promise(drawn => requestAnimationFrame(() => requestAnimationFrame(drawn)))")
        blocks = page.locator(".opblock").evaluate_all(
            "blocks => blocks.map(block => [block.id,"
            " block.querySelector('.opblock-summary-description')?.textContent ?? ''])"
        )
        if blocks == previous:
            return blocks
        previous = blocks
        page.wait_for_timeout(50)
    return previous or []


def test_the_docs_page_renders_every_operation_and_how_to_authorize(two_origin_server, browser_page, output_dir):
    origin = f"http://127.0.0.1:{two_origin_server.thread.port}"
    failed: list[str] = []
    # A request the page's own navigation cancels (the reload below, while the favicon loads) is not one that failed.
    browser_page.on(
        "requestfailed", lambda request: request.failure != "net::ERR_ABORTED" and failed.append(request.url)
    )

    browser_page.goto(f"{origin}/docs/")

    operations = browser_page.locator(".opblock")
    expect(operations.first).to_be_visible()
    rendered = _rendered_operations(browser_page)
    assert rendered == _operations(browser_page, origin)
    assert "Create a transaction" in rendered.values()
    browser_page.evaluate("window.scrollTo(0, 0)")
    expect(browser_page.get_by_text("issue_token").first).to_be_visible()  # the introduction says how

    # A deep link opens the operation and scrolls the virtualised list to it.
    browser_page.goto(f"{origin}/docs/#/buyers/buyers_create")
    browser_page.reload()  # the same document with a new fragment would not be read again
    create_buyer = browser_page.locator("#operations-buyers-buyers_create")
    for status in ("201", "400", "401", "403", "409"):
        expect(create_buyer.locator(f"tr.response[data-code='{status}']")).to_be_visible()
    expect(create_buyer.locator(".body-param__example, .microlight").first).to_contain_text("Grace Hopper")

    browser_page.get_by_role("button", name="Authorize").first.click()
    dialog = browser_page.locator(".dialog-ux")
    expect(dialog).to_contain_text("BearerAuth")
    expect(dialog).to_contain_text("create_api_key")
    browser_page.screenshot(path=str(output_dir / "api-docs.png"), full_page=False)
    assert failed == []
