// Copy buttons: <button data-copy="ID"> copies the value of the input with that id, then says so in the
// words of its data-copied (the page's language). A file of its own because the Content Security Policy
// forbids inline scripts.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var input = document.getElementById(button.getAttribute("data-copy"));
  if (!input) return;
  input.select();
  var done = function () { button.textContent = button.getAttribute("data-copied") || "Copied"; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
  } else {
    document.execCommand("copy");
    done();
  }
});
