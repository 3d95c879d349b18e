"""A campaign is made of datasets: the training and control pools, parts of their dataset,
are offered neither on the campaign page nor in the admin's form."""

import pytest

from annotation.results.admin import CampaignForm as AdminCampaignForm
from annotation.results.forms import CampaignForm

pytestmark = pytest.mark.django_db


def test_the_campaign_forms_offer_datasets_and_no_pools(dataset, training_pool, control_pool):
    for form in (CampaignForm(), AdminCampaignForm()):
        assert list(form.fields["datasets"].queryset) == [dataset]
    refused = CampaignForm({"name": "c", "datasets": [training_pool.pk], "human_source": "majority_filled"})
    assert not refused.is_valid() and "datasets" in refused.errors
