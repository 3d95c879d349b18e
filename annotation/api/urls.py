from django.contrib.auth.decorators import login_required
from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from annotation.api import tokens, views

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
    path("annotations/", views.annotation_list, name="api_annotations"),
    path("annotations/<id:pk>/", views.annotation_detail, name="api_annotation"),
    path("token/", tokens.obtain_token, name="api_token"),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", api_docs, name="api_docs"),
]
