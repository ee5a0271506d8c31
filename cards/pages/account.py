"""The dashboard's page that erases a person's account and everything of theirs."""

from __future__ import annotations

from django.contrib.auth import logout
from django.shortcuts import render

from core.errors import DomainError
from core.pages import error_fields
from scopes.pages.entry import page

from ..services.account import account_erase_confirmed
from .forms import AccountEraseForm


@page
def account_erase_page(request):
    """GET explains what goes and asks for the password; POST erases the account
    and everything of theirs, ends the session and shows the receipt in words."""
    form = AccountEraseForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            receipt = account_erase_confirmed(user=request.user, password=form.cleaned_data["password"])
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            logout(request)
            return render(request, "cards/erased.html", {"receipt": receipt.words()})
    return render(request, "cards/erase_account.html", {"form": form},
                  status=400 if request.method == "POST" else 200)
