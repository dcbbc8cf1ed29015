;;; emacs-screens.el --- the Emacs of the documentation screenshots  -*- lexical-binding: t -*-
;;
;;   TILELS=<bin/tilels> PLUGIN=editors/emacs emacs -nw -Q -l scripts/e2e/emacs-screens.el kernel.py
;;
;; The recipe of docs/editor-emacs.md, on a dark terminal, with line numbers.
(require 'package)
(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(add-to-list 'load-path (getenv "PLUGIN"))
(require 'tilels-eglot)
(setq tilels-program (list (getenv "TILELS")))
(tilels-eglot-setup)
(setq inhibit-startup-screen t
      frame-background-mode 'dark
      split-width-threshold 120
      eldoc-echo-area-use-multiline-p nil)
(mapc #'frame-set-background-mode (frame-list))
(global-display-line-numbers-mode 1)
(column-number-mode 1)
