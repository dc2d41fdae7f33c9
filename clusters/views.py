from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .models import Author, NameCluster, Paper, Venue


def home(request: HttpRequest) -> HttpResponse:
    data = {
        "figures": {
            "papers": Paper.objects.count(),
            "identities": Author.objects.filter(merged_into=None).count(),
            "clusters": NameCluster.objects.count(),
            "venues": Venue.objects.count(),
        }
    }
    return render(request, "clusters/home.html", {"data": data})
