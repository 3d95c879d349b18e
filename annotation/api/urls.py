from django.urls import path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.authtoken.views import obtain_auth_token

from annotation.api import docs, views

urlpatterns = [
    path("datasets/", views.dataset_list, name="api_datasets"),
    path("datasets/<int:pk>/items/", views.dataset_items, name="api_dataset_items"),
    path("datasets/<int:pk>/agreement/", views.dataset_agreement, name="api_dataset_agreement"),
    path("datasets/<int:pk>/report", views.dataset_report, name="api_dataset_report"),
    path("campaigns/<int:pk>/report", views.campaign_report, name="api_campaign_report"),
    path("datasets/<int:pk>/export", views.dataset_export, name="api_dataset_export"),
    path("annotations/", views.annotation_list, name="api_annotations"),
    path("annotations/<int:pk>/", views.annotation_detail, name="api_annotation"),
    path("token/", obtain_auth_token, name="api_token"),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", docs.api_docs, name="api_docs"),
]
