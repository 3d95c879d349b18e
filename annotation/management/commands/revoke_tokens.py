from annotation.accounts.tokens import revoke_tokens
from annotation.management.commands._common import DataCommand, users_named


class Command(DataCommand):
    help = "Revoke the API tokens of users: their next API request with the old token is refused."

    def add_arguments(self, parser):
        parser.add_argument("users", type=users_named, help="comma-separated usernames")

    def run(self, *, users, **options):
        for user in users:
            count = revoke_tokens(user)
            self.stdout.write(f"{user.username}: {'token revoked' if count else 'had no token'}")
