// The review queue's label picker: a label picked from the choices under a
// candidate's label box (review/_label_choices.html, swapped in by htmx as the
// reviewer types) goes into the box, and the choices close.
// A file of its own because the Content Security Policy forbids inline scripts.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-label-pick]");
  if (!button) return;
  var box = document.getElementById(button.getAttribute("data-label-pick"));
  if (!box) return;
  box.value = button.getAttribute("data-value");
  var choices = button.closest("[data-label-choices]");
  if (choices) choices.textContent = "";
  box.focus();
});
