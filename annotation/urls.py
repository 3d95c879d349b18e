from django.urls import path

from annotation.views import adjudicating, annotating, home, organizer, reports, training

urlpatterns = [
    path("", home.home, name="home"),
    path("annotate/<id:dataset_pk>/", annotating.annotate_continue, name="annotate_continue"),
    path("annotate/<id:dataset_pk>/done/", annotating.queue_done, name="queue_done"),
    path("annotate/<id:dataset_pk>/<position:position>/", annotating.annotate_item, name="annotate_item"),
    path("annotate/<id:dataset_pk>/training/", training.training_round, name="training_round"),
    path("annotate/<id:dataset_pk>/training/<position:position>/", training.training_item, name="training_item"),
    path("my-answers/", annotating.my_answers, name="my_answers"),
    path("adjudicate/", adjudicating.adjudicate_home, name="adjudicate_home"),
    path("adjudicate/<id:dataset_pk>/", adjudicating.adjudicate_continue, name="adjudicate_continue"),
    path("adjudicate/<id:dataset_pk>/done/", adjudicating.adjudicate_done, name="adjudicate_done"),
    path("adjudicate/<id:dataset_pk>/<id:item_pk>/", adjudicating.adjudicate_item, name="adjudicate_item"),
    path("organize/", organizer.dataset_list, name="organizer_datasets"),
    path("organize/import/", organizer.import_upload, name="organizer_import"),
    path("organize/accounts/", organizer.accounts, name="organizer_accounts"),
    path("organize/<id:pk>/", organizer.dataset_detail, name="organizer_dataset"),
    path("organize/<id:pk>/agreement/", organizer.dataset_agreement, name="organizer_agreement"),
    path("organize/<id:pk>/training/", training.organizer_training, name="organizer_training"),
    path("organize/<id:pk>/control-accuracy.svg", training.control_accuracy_plot, name="organizer_control_plot"),
    path("organize/<id:pk>/gold/", organizer.import_gold_upload, name="organizer_import_gold"),
    path("organize/<id:pk>/assign/", organizer.assign_annotators, name="organizer_assign"),
    path("organize/<id:pk>/exports/", organizer.dataset_exports, name="organizer_exports"),
    path("organize/<id:pk>/export/<str:annotator>/", organizer.export_submission, name="organizer_export"),
    path("organize/<id:pk>/report/", reports.dataset_report_page, name="organizer_report"),
    path("organize/campaigns/", reports.campaign_list, name="organizer_campaigns"),
    path("organize/campaigns/<id:pk>/", reports.campaign_page, name="organizer_campaign"),
]
