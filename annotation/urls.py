from django.urls import path

from annotation.views import annotating, home, organizer, reports

urlpatterns = [
    path("", home.home, name="home"),
    path("annotate/<int:dataset_pk>/", annotating.annotate_continue, name="annotate_continue"),
    path("annotate/<int:dataset_pk>/done/", annotating.queue_done, name="queue_done"),
    path("annotate/<int:dataset_pk>/<int:position>/", annotating.annotate_item, name="annotate_item"),
    path("my-answers/", annotating.my_answers, name="my_answers"),
    path("organize/", organizer.dataset_list, name="organizer_datasets"),
    path("organize/import/", organizer.import_upload, name="organizer_import"),
    path("organize/<int:pk>/", organizer.dataset_detail, name="organizer_dataset"),
    path("organize/<int:pk>/agreement/", organizer.dataset_agreement, name="organizer_agreement"),
    path("organize/<int:pk>/gold/", organizer.import_gold_upload, name="organizer_import_gold"),
    path("organize/<int:pk>/assign/", organizer.assign_annotators, name="organizer_assign"),
    path("organize/<int:pk>/report/", reports.dataset_report_page, name="organizer_report"),
    path("organize/campaigns/", reports.campaign_list, name="organizer_campaigns"),
    path("organize/campaigns/<int:pk>/", reports.campaign_page, name="organizer_campaign"),
    path("organize/<int:pk>/exports/", organizer.dataset_exports, name="organizer_exports"),
    path("organize/<int:pk>/export/<str:annotator>/", organizer.export_submission, name="organizer_export"),
]
