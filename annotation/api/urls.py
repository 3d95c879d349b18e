from django.urls import path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.authtoken.views import obtain_auth_token

from annotation.api import adjudication, docs, views

urlpatterns = [
    path("datasets/", views.dataset_list, name="api_datasets"),
    path("datasets/<int:pk>/items/", views.dataset_items, name="api_dataset_items"),
    path("datasets/<int:pk>/agreement/", views.dataset_agreement, name="api_dataset_agreement"),
    path("annotations/", views.annotation_list, name="api_annotations"),
    path("annotations/<int:pk>/", views.annotation_detail, name="api_annotation"),
    path("adjudication/datasets/", adjudication.adjudication_datasets, name="api_adjudication_datasets"),
    path("adjudication/datasets/<int:pk>/queue/", adjudication.adjudication_queue, name="api_adjudication_queue"),
    path("adjudication/items/<int:pk>/", adjudication.adjudication_item, name="api_adjudication_item"),
    path("adjudication/items/<int:pk>/claim/", adjudication.adjudication_claim, name="api_adjudication_claim"),
    path("adjudication/items/<int:pk>/decision/", adjudication.adjudication_decision, name="api_adjudication_decision"),
    path("datasets/<int:pk>/adjudication-settings/", adjudication.adjudication_settings, name="api_adjudication_settings"),
    path("items/<int:pk>/withdraw/", adjudication.withdraw, name="api_withdraw"),
    path("token/", obtain_auth_token, name="api_token"),
    path("schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("docs/", docs.api_docs, name="api_docs"),
]
