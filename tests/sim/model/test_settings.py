"""The repository's settings: secrets are kept by name in upper case, as GitHub keeps them."""

from __future__ import annotations

from datetime import UTC, datetime

from baton.sim.model.settings import RepositorySettings


def test_setting_a_secret_again_keeps_when_it_was_created_and_its_name_in_upper_case() -> None:
    settings = RepositorySettings()
    first, later = datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 2, 1, tzinfo=UTC)
    settings.set_secret("baton_record_secret", first)
    settings.set_secret("BATON_RECORD_SECRET", later)
    (secret,) = settings.secrets.values()
    assert (secret.name, secret.created_at, secret.updated_at) == (
        "BATON_RECORD_SECRET",
        first,
        later,
    )
