from django.core.management.base import BaseCommand

from annotation.management.commands._common import get_users
from annotation.services.tokens import revoke_tokens


class Command(BaseCommand):
    help = "Revoke the API tokens of users: their next API request with the old token is refused."

    def add_arguments(self, parser):
        parser.add_argument("usernames", help="comma-separated usernames")

    def handle(self, *args, **options):
        for user in get_users(options["usernames"]):
            count = revoke_tokens(user)
            self.stdout.write(f"{user.username}: {'token revoked' if count else 'had no token'}")
