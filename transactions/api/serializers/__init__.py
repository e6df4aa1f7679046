"""Transaction, refund and action shapes, field for field as the upstream schemas.

Input serializers declare every field of the upstream request schema: each one is acted on, or is an
`UnsupportedField` that refuses any value but the one asking for nothing; any other field is a 400, so a typo
never passes for an absent value. `TransactionCreateInput` turns a valid body into the service's
`TransactionRequest`. Output serializers declare every field they render.
"""
