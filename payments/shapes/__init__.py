"""The upstream API's request shapes every resource reuses, field for field as its schemas: addresses and
contact details, order details (cart, guest buyer, airline), card fields, and what a processor may use beyond
the card (3-D Secure data, browser, statement descriptor, recipient). Request plumbing (strict fields, the
envelope, pagination) stays in `payments.rest`; these build on it."""
