"""Readers' reports of something wrong, for the moderators' queue."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from .bibliography import Author, NameCluster, Paper


class ReportQuerySet(models.QuerySet):
    def open(self) -> ReportQuerySet:
        return self.filter(status=Report.Status.OPEN)


class Report(models.Model):
    """A reader says something is wrong with a name, an identity or a paper."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        RESOLVED = "resolved", "resolved"
        DISMISSED = "dismissed", "dismissed"

    cluster = models.ForeignKey(NameCluster, null=True, blank=True, on_delete=models.CASCADE)
    identity = models.ForeignKey(Author, null=True, blank=True, on_delete=models.CASCADE)
    paper = models.ForeignKey(Paper, null=True, blank=True, on_delete=models.CASCADE)
    text = models.TextField()
    contact = models.CharField(max_length=200, blank=True)
    # For rate limits and abuse, not shown: the client address as the server saw it.
    client = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    handled_at = models.DateTimeField(null=True, blank=True)
    note = models.TextField(blank=True)

    objects = ReportQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(cluster__isnull=False, identity__isnull=True, paper__isnull=True)
                    | Q(cluster__isnull=True, identity__isnull=False, paper__isnull=True)
                    | Q(cluster__isnull=True, identity__isnull=True, paper__isnull=False)
                ),
                name="report_one_subject",
            ),
        ]
        indexes = [
            # The moderation queue: open reports, oldest first.
            models.Index(fields=["status", "created_at"], name="report_status_idx"),
        ]

    def __str__(self) -> str:
        return f"Report #{self.pk} on {self.subject}"

    @property
    def subject(self) -> NameCluster | Author | Paper:
        return self.cluster or self.identity or self.paper
