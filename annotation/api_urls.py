"""The REST API of every concern, under /api/ (the pages are in annotation/urls.py)."""

from django.contrib.auth.decorators import login_required
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from annotation.accounts import api as accounts
from annotation.adjudicate import api as adjudicate
from annotation.annotate import api as annotate
from annotation.datasets import api as datasets
from annotation.results import api as results

# Swagger UI from drf-spectacular-sidecar (served as static files, no other host); the split
# view serves its start-up script as a file of its own (?script), so the page has no inline
# script. A page for people: without a session it sends to the login page.
api_docs = login_required(
    SpectacularSwaggerSplitView.as_view(url_name="api_schema", template_name="annotation/api_swagger.html")
)


urlpatterns = [
    path("datasets/", annotate.dataset_list, name="api_datasets"),
    path("datasets/<id:pk>/items/", annotate.dataset_items, name="api_dataset_items"),
    path("datasets/<id:pk>/agreement/", results.dataset_agreement, name="api_dataset_agreement"),
    path("datasets/<id:pk>/export", results.dataset_export, name="api_dataset_export"),
    path("datasets/<id:pk>/report", results.dataset_report, name="api_dataset_report"),
    path("campaigns/<id:pk>/report", results.campaign_report, name="api_campaign_report"),
    path("annotations/", annotate.annotation_list, name="api_annotations"),
    path("annotations/<id:pk>/", annotate.annotation_detail, name="api_annotation"),
    path("token/", accounts.obtain_token, name="api_token"),
    path("adjudication/datasets/", adjudicate.adjudication_datasets, name="api_adjudication_datasets"),
    path("adjudication/datasets/<id:pk>/queue/", adjudicate.adjudication_queue, name="api_adjudication_queue"),
    path("adjudication/items/<id:pk>/", adjudicate.adjudication_item, name="api_adjudication_item"),
    path("adjudication/items/<id:pk>/claim/", adjudicate.adjudication_claim, name="api_adjudication_claim"),
    path("adjudication/items/<id:pk>/decision/", adjudicate.adjudication_decision, name="api_adjudication_decision"),
    path("datasets/<id:pk>/adjudication-settings/", adjudicate.adjudication_settings, name="api_adjudication_settings"),
    path("items/<id:pk>/withdraw/", datasets.withdraw, name="api_withdraw"),
    path("datasets/<id:pk>/sample/", datasets.dataset_sample, name="api_dataset_sample"),
    path("datasets/<id:pk>/routing/", datasets.dataset_routing, name="api_dataset_routing"),
    path("datasets/<id:pk>/next/", annotate.next_item, name="api_next_item"),
    path("datasets/<id:pk>/gold-audit/", datasets.gold_audit, name="api_gold_audit"),
    path("items/<id:pk>/gold-audit/", datasets.gold_audit_decision, name="api_gold_audit_decision"),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", api_docs, name="api_docs"),
]
