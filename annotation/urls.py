"""The pages of every concern (the API's are in annotation/api_urls.py)."""

from django.urls import path

from annotation.accounts import views as accounts
from annotation.adjudicate import views as adjudicate
from annotation.annotate import views as annotate
from annotation.datasets import audit_views as audit
from annotation.datasets import browsing_views as browsing
from annotation.datasets import views as datasets
from annotation.results import views as results
from annotation.studies import views as studies
from annotation.training import views as training

urlpatterns = [
    path("", annotate.home, name="home"),
    path("annotate/<id:dataset_pk>/", annotate.annotate_continue, name="annotate_continue"),
    path("annotate/<id:dataset_pk>/done/", annotate.queue_done, name="queue_done"),
    path("annotate/<id:dataset_pk>/<position:position>/", annotate.annotate_item, name="annotate_item"),
    path("annotate/<id:dataset_pk>/training/", training.training_round, name="training_round"),
    path("annotate/<id:dataset_pk>/training/<position:position>/", training.training_item, name="training_item"),
    path("study/<str:token>/", studies.study_entry, name="study_entry"),
    path("study/<str:token>/continue/", studies.study_continue, name="study_continue"),
    path("my-answers/", annotate.my_answers, name="my_answers"),
    path("key-settings/", accounts.key_settings, name="key_settings"),
    path("adjudicate/", adjudicate.adjudicate_home, name="adjudicate_home"),
    path("adjudicate/<id:dataset_pk>/", adjudicate.adjudicate_continue, name="adjudicate_continue"),
    path("adjudicate/<id:dataset_pk>/done/", adjudicate.adjudicate_done, name="adjudicate_done"),
    path("adjudicate/<id:dataset_pk>/<id:item_pk>/", adjudicate.adjudicate_item, name="adjudicate_item"),
    path("organize/", datasets.dataset_list, name="organizer_datasets"),
    path("organize/import/", datasets.import_upload, name="organizer_import"),
    path("organize/accounts/", accounts.accounts, name="organizer_accounts"),
    path("organize/<id:pk>/", datasets.dataset_detail, name="organizer_dataset"),
    path("organize/<id:pk>/items/", browsing.item_browser, name="organizer_items"),
    path("organize/<id:pk>/items/<id:item_pk>/", browsing.item_detail, name="organizer_item"),
    path("audit/<id:pk>/", audit.gold_audit, name="gold_audit"),
    path("organize/<id:pk>/adjudication/", browsing.adjudication_overview, name="organizer_adjudication"),
    path("organize/<id:pk>/agreement/", results.dataset_agreement, name="organizer_agreement"),
    path("organize/<id:pk>/training/", training.organizer_training, name="organizer_training"),
    path("organize/<id:pk>/control-accuracy.svg", training.control_accuracy_plot, name="organizer_control_plot"),
    path("organize/<id:pk>/remove/", datasets.dataset_removal, name="organizer_removal"),
    path("organize/<id:pk>/models/<id:model_pk>/delete/", results.model_submission_removal,
         name="organizer_model_removal"),
    path("organize/<id:pk>/gold/", datasets.import_gold_upload, name="organizer_import_gold"),
    path("organize/<id:pk>/assign/", datasets.assign_annotators, name="organizer_assign"),
    path("organize/<id:pk>/sample/", datasets.dataset_sample, name="organizer_sample"),
    path("organize/<id:pk>/exports/", results.dataset_exports, name="organizer_exports"),
    path("organize/<id:pk>/export/<str:annotator>/", results.export_submission, name="organizer_export"),
    path("organize/<id:pk>/report/", results.dataset_report_page, name="organizer_report"),
    path("organize/<id:pk>/report/compute/", results.dataset_report_compute, name="organizer_report_compute"),
    path("organize/studies/", studies.study_list, name="organizer_studies"),
    path("organize/studies/new/", studies.study_settings, name="organizer_study_new"),
    path("organize/studies/<id:pk>/", studies.study_page, name="organizer_study"),
    path("organize/studies/<id:pk>/settings/", studies.study_settings, name="organizer_study_settings"),
    path("organize/studies/<id:pk>/state/", studies.study_state, name="organizer_study_state"),
    path("organize/studies/<id:pk>/reconcile/", studies.study_reconcile, name="organizer_study_reconcile"),
    path("organize/studies/<id:pk>/delete-ids/", studies.study_delete_ids, name="organizer_study_delete_ids"),
    path("organize/campaigns/", results.campaign_list, name="organizer_campaigns"),
    path("organize/campaigns/<id:pk>/", results.campaign_page, name="organizer_campaign"),
    path("organize/campaigns/<id:pk>/compute/", results.campaign_compute, name="organizer_campaign_compute"),
    path("organize/campaigns/<id:pk>/protocol/", results.campaign_protocol, name="organizer_campaign_protocol"),
    path("organize/campaigns/<id:pk>/paper/", results.campaign_paper, name="organizer_campaign_paper"),
    path("organize/campaigns/<id:pk>/release/", results.campaign_release, name="organizer_campaign_release"),
]
