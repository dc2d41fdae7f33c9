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
]
