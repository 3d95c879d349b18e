"""URL converters for ids and positions that the database can hold.

Django's ``int`` converter takes any number of digits; a number past the column's range then
fails in the database driver (a server error) instead of finding nothing. These match the
same digits but refuse, as no match (a 404), a number the column cannot hold."""

from django.urls.converters import IntConverter

BIGINT_MAX = 2**63 - 1  # primary keys: BigAutoField


INTEGER_MAX = 2**31 - 1  # positions: PositiveIntegerField


class _BoundedInt(IntConverter):
    maximum: int

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > self.maximum:
            raise ValueError(f"{value} is beyond the database's range")
        return number


class IdConverter(_BoundedInt):
    maximum = BIGINT_MAX


class PositionConverter(_BoundedInt):
    maximum = INTEGER_MAX
