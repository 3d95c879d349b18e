from django.urls import path

from annotation.views import adjudicating, annotating, home, organizer, training

urlpatterns = [
    path("", home.home, name="home"),
    path("annotate/<int:dataset_pk>/", annotating.annotate_continue, name="annotate_continue"),
    path("annotate/<int:dataset_pk>/done/", annotating.queue_done, name="queue_done"),
    path("annotate/<int:dataset_pk>/<int:position>/", annotating.annotate_item, name="annotate_item"),
    path("annotate/<int:dataset_pk>/training/", training.training_round, name="training_round"),
    path("annotate/<int:dataset_pk>/training/<int:position>/", training.training_item, name="training_item"),
    path("my-answers/", annotating.my_answers, name="my_answers"),
    path("adjudicate/", adjudicating.adjudicate_home, name="adjudicate_home"),
    path("adjudicate/<int:dataset_pk>/", adjudicating.adjudicate_continue, name="adjudicate_continue"),
    path("adjudicate/<int:dataset_pk>/done/", adjudicating.adjudicate_done, name="adjudicate_done"),
    path("adjudicate/<int:dataset_pk>/<int:item_pk>/", adjudicating.adjudicate_item, name="adjudicate_item"),
    path("organize/", organizer.dataset_list, name="organizer_datasets"),
    path("organize/import/", organizer.import_upload, name="organizer_import"),
    path("organize/<int:pk>/", organizer.dataset_detail, name="organizer_dataset"),
    path("organize/<int:pk>/agreement/", organizer.dataset_agreement, name="organizer_agreement"),
    path("organize/<int:pk>/training/", training.organizer_training, name="organizer_training"),
    path("organize/<int:pk>/control-accuracy.svg", training.control_accuracy_plot, name="organizer_control_plot"),
    path("organize/<int:pk>/gold/", organizer.import_gold_upload, name="organizer_import_gold"),
    path("organize/<int:pk>/assign/", organizer.assign_annotators, name="organizer_assign"),
    path("organize/<int:pk>/export/<str:annotator>/", organizer.export_submission, name="organizer_export"),
]
