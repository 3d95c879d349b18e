from django.contrib.auth.decorators import login_required
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from annotation.api import adjudication, tokens, views

# Swagger UI from drf-spectacular-sidecar (served as static files, no other host); the split
# view serves its start-up script as a file of its own (?script), so the page has no inline
# script. A page for people: without a session it sends to the login page.
api_docs = login_required(
    SpectacularSwaggerSplitView.as_view(url_name="api_schema", template_name="annotation/api_swagger.html")
)

urlpatterns = [
    path("datasets/", views.dataset_list, name="api_datasets"),
    path("datasets/<id:pk>/items/", views.dataset_items, name="api_dataset_items"),
    path("datasets/<id:pk>/agreement/", views.dataset_agreement, name="api_dataset_agreement"),
    path("datasets/<id:pk>/export", views.dataset_export, name="api_dataset_export"),
    path("datasets/<id:pk>/report", views.dataset_report, name="api_dataset_report"),
    path("campaigns/<id:pk>/report", views.campaign_report, name="api_campaign_report"),
    path("annotations/", views.annotation_list, name="api_annotations"),
    path("annotations/<id:pk>/", views.annotation_detail, name="api_annotation"),
    path("token/", tokens.obtain_token, name="api_token"),
    path("adjudication/datasets/", adjudication.adjudication_datasets, name="api_adjudication_datasets"),
    path("adjudication/datasets/<id:pk>/queue/", adjudication.adjudication_queue, name="api_adjudication_queue"),
    path("adjudication/items/<id:pk>/", adjudication.adjudication_item, name="api_adjudication_item"),
    path("adjudication/items/<id:pk>/claim/", adjudication.adjudication_claim, name="api_adjudication_claim"),
    path("adjudication/items/<id:pk>/decision/", adjudication.adjudication_decision, name="api_adjudication_decision"),
    path("datasets/<id:pk>/adjudication-settings/", adjudication.adjudication_settings, name="api_adjudication_settings"),
    path("items/<id:pk>/withdraw/", adjudication.withdraw, name="api_withdraw"),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", api_docs, name="api_docs"),
]
