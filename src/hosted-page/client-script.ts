/**
 * The hosted form page's script, inlined under the page's CSP nonce. Plain ES2020 with no
 * dependency: it uploads each chosen file through S3 (one XMLHttpRequest per file, for its
 * upload progress), submits the values through S2, shows S2's validation issues beside their
 * fields, and then shows the thanks message or follows the redirect. It calls the API beside
 * the page (`<base>/f/<id>` → `<base>/api/form/<id>/…`), so it works under any mount path.
 * Kept as a string rather than a module of its own so that the service needs no file access.
 */
export const clientScript = `(function () {
  "use strict";
  var form = document.getElementById("formwork-form");
  if (!form) return;
  var base = location.pathname.replace(new RegExp("/f/[^/]*/?$"), "");
  var api = base + "/api/form/" + encodeURIComponent(form.dataset.formId);
  var alertBox = document.getElementById("form-alert");
  var thanks = document.getElementById("thanks");
  var button = form.querySelector("button[type=submit]");
  var uploads = new Map();

  function fields() { return Array.prototype.slice.call(form.querySelectorAll(".field")); }
  function fieldOf(name) { return fields().find(function (f) { return f.dataset.name === name; }); }
  function controls(field) { return field.querySelectorAll("input, select, textarea"); }
  function parse(text) { try { return JSON.parse(text); } catch (e) { return null; } }

  function setError(field, message) {
    var box = field.querySelector(".error");
    box.textContent = message;
    box.hidden = !message;
    controls(field).forEach(function (c) {
      if (message) c.setAttribute("aria-invalid", "true"); else c.removeAttribute("aria-invalid");
    });
  }
  function showAlert(message) { alertBox.textContent = message; alertBox.hidden = !message; }

  function upload(name, file, list) {
    var item = document.createElement("li");
    var label = document.createElement("span");
    var bar = document.createElement("progress");
    item.dataset.state = "uploading";
    label.textContent = file.name;
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", "Upload of " + file.name);
    item.append(label, bar);
    list.append(item);
    return new Promise(function (resolve) {
      var xhr = new XMLHttpRequest();
      function fail(message) {
        item.dataset.state = "failed";
        label.textContent = file.name + ": " + message;
        resolve(null);
      }
      xhr.open("POST", api + "/submissionattachment");
      xhr.upload.onprogress = function (event) {
        if (event.lengthComputable) bar.value = Math.floor((event.loaded / event.total) * 99);
      };
      xhr.onload = function () {
        var body = parse(xhr.responseText);
        if (xhr.status !== 200 || !body || !body.id) {
          return fail((body && body.message) || "the upload failed (" + xhr.status + ")");
        }
        bar.value = 100;
        item.dataset.state = "done";
        resolve(body.id);
      };
      xhr.onerror = function () { fail("the upload did not reach the server"); };
      var data = new FormData();
      data.append(name, file, file.name);
      xhr.send(data);
    });
  }

  function chooseFiles(input) {
    var field = input.closest(".field");
    var name = field.dataset.name;
    var list = field.querySelector(".uploads");
    var files = Array.prototype.slice.call(input.files);
    var maxFiles = Number(input.dataset.maxFiles) || Infinity;
    var maxSize = Number(input.dataset.maxFileSize) || Infinity;
    var tooBig = files.filter(function (file) { return file.size > maxSize; });
    list.textContent = "";
    uploads.set(name, []);
    setError(field, "");
    if (files.length > maxFiles) return setError(field, "Choose at most " + maxFiles + " files.");
    if (tooBig.length) return setError(field, tooBig[0].name + " is larger than allowed.");
    uploads.set(name, files.map(function (file) { return upload(name, file, list); }));
  }

  async function valueOf(field) {
    var type = field.dataset.type;
    if (type === "radio") {
      var chosen = field.querySelector("input:checked");
      return chosen ? chosen.value : "";
    }
    if (type === "checkbox") {
      var checked = field.querySelectorAll("input:checked");
      return Array.prototype.map.call(checked, function (c) { return c.value; }).join("|");
    }
    if (type !== "file") return controls(field)[0].value;
    var ids = await Promise.all(uploads.get(field.dataset.name) || []);
    if (ids.indexOf(null) < 0) return ids.join("|");
    setError(field, "A file did not upload; choose it again.");
    return null;
  }

  function redirectUrl(answer, values) {
    if (!answer.thanks_behaviour_redirect_url) return null;
    var url;
    try { url = new URL(answer.thanks_behaviour_redirect_url, location.href); } catch (e) { return null; }
    // Web addresses only: a javascript: URL from the settings would run in this page.
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    (answer.thanks_behaviour_redirect_url_params || []).forEach(function (param) {
      var from = param.param_value_form_field_system_name;
      url.searchParams.append(param.param_name, (from ? values[from] : param.param_value_fixed) || "");
    });
    return url.href;
  }

  function thank(answer, values) {
    var target = answer.thanks_behaviour === "url_redirect" && redirectUrl(answer, values);
    if (target && answer.thanks_behaviour_redirect_parent_page) {
      try { window.top.location.href = target; return; } catch (e) { /* cross-origin: below */ }
    }
    if (target) { location.href = target; return; }
    form.hidden = true;
    thanks.textContent = answer.thanks_behaviour_message || "Thank you for your submission";
    thanks.hidden = false;
    thanks.focus();
  }

  function showIssues(answer) {
    var first = null;
    var others = [];
    ((answer && answer.issues) || []).forEach(function (issue) {
      var field = fieldOf(issue.path);
      if (!field) return others.push(issue.path + " " + issue.message);
      setError(field, field.dataset.label + " " + issue.message);
      first = first || field;
    });
    var summary = first ? "Please correct the fields marked below." : (answer && answer.message) || "The form could not be sent.";
    showAlert([summary].concat(others).join(" "));
    if (first) controls(first)[0].focus();
  }

  async function send() {
    var values = {};
    var failed = false;
    showAlert("");
    fields().forEach(function (field) { setError(field, ""); });
    for (var field of fields()) {
      var value = await valueOf(field);
      if (value === null) failed = true;
      else if (value !== "") values[field.dataset.name] = value;
    }
    if (failed) return showAlert("Please correct the fields marked below.");
    var formFields = Object.keys(values).map(function (name) {
      return { unique_system_name: name, submitted_value: values[name] };
    });
    var response;
    try {
      response = await fetch(api + "/submission", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ form_fields: formFields }),
      });
    } catch (e) {
      return showAlert("The form could not be sent. Check your connection and try again.");
    }
    var answer = parse(await response.text());
    if (response.ok && answer) thank(answer, values); else showIssues(answer);
  }

  form.addEventListener("change", function (event) {
    if (event.target.type === "file") chooseFiles(event.target);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    button.disabled = true;
    send().finally(function () { button.disabled = false; });
  });
})();
`;
