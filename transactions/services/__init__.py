"""Every change of a transaction: the one place where its state machine and money rules live.

Calls to the processor happen outside database transactions, so a slow processor never holds row locks.
Each operation therefore runs in three steps: (1) under the transaction's row lock, check the transition
and claim it by moving to a pending status (a new transaction starts as `processing`); (2) ask the
connector; (3) under the lock again, record the answer. A concurrent request finds the pending status and
is refused, so an operation never runs twice. Gift card money moves in step 1 (ledger debits) and comes
back in step 3 if the card part is refused; the ledger is in this database, so it commits or rolls back
with the transaction row.

The transition table is `TRANSITIONS`; docs/transactions.md draws it.
"""
