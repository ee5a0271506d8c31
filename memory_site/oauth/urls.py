"""The authorization server's routes, in django-oauth-toolkit's namespace (its
metadata view finds the endpoints by these names). Discovery sits at the
origin's /.well-known/, the endpoints under /oauth/."""

from django.urls import path
from oauth2_provider import views as oauth_views

from .consent import ConsentView
from .metadata import ResourceMetadataView
from .registration import ConnectorManagementView, ConnectorRegistrationView

app_name = "oauth2_provider"

urlpatterns = [
    path(".well-known/oauth-authorization-server", oauth_views.OAuthServerMetadataView.as_view(),
         name="oauth-server-metadata"),
    path(".well-known/oauth-protected-resource", ResourceMetadataView.as_view(), name="resource-metadata"),
    # RFC 9728's path form for the resource at /mcp/, which clients try first.
    path(".well-known/oauth-protected-resource/mcp", ResourceMetadataView.as_view()),
    path(".well-known/oauth-protected-resource/mcp/", ResourceMetadataView.as_view()),
    path("oauth/authorize/", ConsentView.as_view(), name="authorize"),
    path("oauth/token/", oauth_views.TokenView.as_view(), name="token"),
    path("oauth/revoke/", oauth_views.RevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/register/", ConnectorRegistrationView.as_view(), name="dcr-register"),
    path("oauth/register/<str:client_id>/", ConnectorManagementView.as_view(), name="dcr-register-management"),
]
