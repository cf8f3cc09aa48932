"""Models of the fixture."""

import dataclasses

MAX_USERS = 1000
default_role = "member"


# A user of the system.
@dataclasses.dataclass
class User:
    """A user."""

    id: str
    email: str

    @property
    def domain(self) -> str:
        """The e-mail domain."""
        return self.email.split("@")[1]

    # Saves the user.
    def save(self) -> None:
        pass

    class Meta:
        table = "users"

        def describe(self):
            return self.table


def create(email):
    def inner():
        return email

    return User(id=email, email=email)


async def fetch(id):
    return None
