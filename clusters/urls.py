from django.urls import path

from . import views

app_name = "clusters"

urlpatterns = [
    path("", views.home, name="home"),
    path("clusters/", views.cluster_list, name="cluster-list"),
    path("clusters/<str:slug>/", views.cluster_detail, name="cluster-detail"),
    path("authors/<int:pk>/", views.author_detail, name="author-detail"),
    path("papers/<int:pk>/", views.paper_detail, name="paper-detail"),
    path("venues/", views.venue_list, name="venue-list"),
    path("venues/<str:slug>/", views.venue_detail, name="venue-detail"),
    path("venues/<str:slug>/<int:year>/", views.venue_detail, name="venue-year"),
    path("search/", views.search, name="search"),
    path("clusters/<str:slug>/split/", views.cluster_split, name="cluster-split"),
    path(
        "clusters/<str:slug>/suggestions/",
        views.cluster_suggestions,
        name="cluster-suggestions",
    ),
    path("ambiguous/", views.ambiguity_dashboard, name="ambiguity"),
    path("clusters/<str:slug>/move/", views.cluster_move, name="cluster-move"),
    path("clusters/<str:slug>/merge/", views.cluster_merge, name="cluster-merge"),
    path("clusters/<str:slug>/distinct/", views.cluster_distinct, name="cluster-distinct"),
    path("authors/<int:pk>/annotate/", views.author_annotate, name="author-annotate"),
    path("changes/", views.change_list, name="change-list"),
    path("changes/feed/", views.ChangeFeed(), name="change-feed"),
    path("changes/<int:pk>/", views.change_detail, name="change-detail"),
    path("changes/<int:pk>/revert/", views.change_revert, name="change-revert"),
    path("changes/<int:pk>/approve/", views.proposal_approve, name="proposal-approve"),
    path("changes/<int:pk>/reject/", views.proposal_reject, name="proposal-reject"),
    path("clusters/<str:slug>/lock/", views.cluster_lock, name="cluster-lock"),
    path("clusters/<str:slug>/unlock/", views.cluster_unlock, name="cluster-unlock"),
    path("moderation/", views.moderation_queue, name="moderation"),
    path("moderation/reports/<int:pk>/", views.report_handle, name="report-handle"),
    path("proposals/mine/", views.my_proposals, name="my-proposals"),
    path("report/", views.report_create, name="report"),
]
