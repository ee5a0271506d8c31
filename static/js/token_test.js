// "Test this token": calls the agent API with the token alone (no session cookie)
// and says what it sees. A file of its own because the Content Security Policy forbids inline scripts.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button#token-test");
  if (!button) return;
  var token = document.getElementById("token-secret").value.trim();
  var out = document.getElementById("token-test-result");
  if (!token) { out.textContent = "Paste the token first."; return; }
  out.textContent = "Testing…";
  fetch(button.getAttribute("data-url"), {
    headers: {"Authorization": "Bearer " + token, "Accept": "application/json"},
    credentials: "omit"
  }).then(function (response) {
    return response.json().then(function (body) { return {ok: response.ok, body: body}; });
  }).then(function (answer) {
    if (answer.ok) {
      var names = answer.body.results.map(function (scope) { return scope.name; });
      out.textContent = "It works: this token reads " + names.length + " scope" +
        (names.length === 1 ? "" : "s") + ": " + names.join(", ") + ".";
    } else {
      out.textContent = "Refused (" + answer.body.code + "): " + answer.body.detail;
    }
  }).catch(function () { out.textContent = "The site did not answer."; });
});
