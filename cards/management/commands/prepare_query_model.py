"""Builds recall's query model (the card model as a fused ONNX file) now, so the
first recall after a deploy does not pay the ~10 s build."""

from django.core.management.base import BaseCommand

from cards.embeddings.onnx_export import query_model_path


class Command(BaseCommand):
    help = "Build the ONNX query model into the data folder if it is not there yet."

    def handle(self, *args, **options):
        path = query_model_path(wait=True)
        self.stdout.write(f"query model: {path}")
