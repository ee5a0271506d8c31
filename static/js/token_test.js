// "Test this token": calls the agent API with the token alone (no session cookie)
// and says what it sees, in the words the page gives the button (data-*, in the page's language).
// A file of its own because the Content Security Policy forbids inline scripts.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button#token-test");
  if (!button) return;
  var says = function (name, fallback, values) {
    var text = button.getAttribute("data-" + name) || fallback;
    Object.keys(values || {}).forEach(function (key) { text = text.split("{" + key + "}").join(values[key]); });
    return text;
  };
  var token = document.getElementById("token-secret").value.trim();
  var out = document.getElementById("token-test-result");
  if (!token) { out.textContent = says("empty", "Paste the token first."); return; }
  out.textContent = says("testing", "Testing…");
  fetch(button.getAttribute("data-url"), {
    headers: {"Authorization": "Bearer " + token, "Accept": "application/json"},
    credentials: "omit"
  }).then(function (response) {
    return response.json().then(function (body) { return {ok: response.ok, body: body}; });
  }).then(function (answer) {
    if (answer.ok) {
      var names = answer.body.results.map(function (scope) { return scope.name; });
      var listed = names.join(says("separator", ", "));
      out.textContent = names.length === 1
        ? says("works-one", "It works: this token reads 1 scope: {names}.", {names: listed})
        : says("works-many", "It works: this token reads {count} scopes: {names}.",
               {count: String(names.length), names: listed});
    } else {
      out.textContent = says("refused", "Refused ({code}): {detail}",
                             {code: answer.body.code, detail: answer.body.detail});
    }
  }).catch(function () { out.textContent = says("silent", "The site did not answer."); });
});
