"""The words Baton writes to GitHub: messages, escaping for Markdown and for plain
text in git objects, the epic's texts and its plan rendered as a table and a graph."""
