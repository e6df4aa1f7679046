"""The audit log: every API write and every staff action, with its actor, object and time (docs/admin.md).

`services.audit_record` is the one writer. Two hooks call it, inside the transaction of the change:
- API writes: `AuditedWrites` (a default DRF permission, so every view has it) notes the caller and the view's
  action; the first save or delete of each audited resource during that request records an entry;
- staff actions: the admin's own `LogEntry` of an addition, change or deletion records an entry.
"""
