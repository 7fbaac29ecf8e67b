"""finrag.web_static = the folder `app/web_static/`: the answer page's HTML, CSS and JavaScript (package data).

`finrag.web` reads index.html, app.css and app.js from here and serves them as one page, CSS and script
inlined; nothing is loaded from the internet.
"""
